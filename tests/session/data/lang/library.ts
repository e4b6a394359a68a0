import { Book } from "./book";

/** Books on loan, by reader. */
export class Library {
  private loans = new Map<string, Book[]>();

  constructor(private readonly name: string) {}

  lend(reader: string, book: Book): void {
    const held = this.loans.get(reader) ?? [];
    held.push(book);
    this.loans.set(reader, held);
  }

  held(reader: string): Book[] {
    return this.loans.get(reader) ?? [];
  }

  get size(): number {
    let n = 0;
    for (const books of this.loans.values()) {
      n += books.length;
    }
    return n;
  }
}
