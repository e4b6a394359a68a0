import { EventEmitter } from "events";

export type Listener<T> = (state: T, previous: T) => void;

export interface Action {
  type: string;
  payload?: unknown;
}

export abstract class Reducer<T> {
  abstract reduce(state: T, action: Action): T;
}

export class Store<T extends object> {
  private listeners: Set<Listener<T>> = new Set();
  private readonly emitter = new EventEmitter();

  constructor(private state: T, private reducer: Reducer<T>) {}

  get current(): Readonly<T> {
    return this.state;
  }

  dispatch(action: Action): void {
    const previous = this.state;
    this.state = this.reducer.reduce(previous, action);
    if (this.state !== previous) {
      for (const listener of this.listeners) {
        listener(this.state, previous);
      }
      this.emitter.emit("change", { type: action.type });
    }
  }

  subscribe(listener: Listener<T>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export const describe = <T,>(store: Store<T & object>): string =>
  `Store with ${Object.keys(store.current).length} keys`;

export enum Status {
  Idle = "idle",
  Busy = "busy",
}

export function isBusy(status: Status): status is Status.Busy {
  return status === Status.Busy;
}
