/** What a run has started so far, so a step that fails can close it again. */
export class StartedParts {
  private readonly closers: Array<() => Promise<void>> = [];

  add(close: () => Promise<void>): void {
    this.closers.push(close);
  }

  /** Closes every part, the last started first; a part that fails to close does not stop the others. */
  async undo(): Promise<void> {
    for (const close of this.closers.reverse()) await close().catch(() => {});
  }
}
