import React from "react";

type Props = { name: string };

export function Hello({ name }: Props) {
  return <div className="hello">Hello {name}</div>;
}

export const Bye = ({ name }: Props) => <span>Bye {name}</span>;
