// The lists of an app built over one store (`createApp({ store })`, as an embedding or a test does):
// `default` is its list, exactly as before, and creating another is not supported.
import type { DirectoryLimits, ListIfMatch, PutConditions } from "../list/list-directory.ts";
import { DEFAULT_LIST, DEFAULT_TITLE } from "../list/list-names.ts";
import { missingStore } from "./list-read.ts";
import type * as seam from "./task-store.ts";

/** The default list's own version: it is never retitled here, so it never changes. */
export const SINGLE_LIST_VERSION = "default-list";
const DIRECTORY: seam.Directory = {
  version: "single-list",
  json: `[{"name":${JSON.stringify(DEFAULT_LIST)},"title":${JSON.stringify(DEFAULT_TITLE)}}]`,
};
const UNSUPPORTED = Promise.resolve({ outcome: "unsupported" } as const);

/** `store` as the only list, `default`; every other name was never created, and cannot be. */
export class SingleList implements seam.TaskLists {
  /** The one list, as its store was opened. */
  readonly store: seam.TaskStore;

  constructor(store: seam.TaskStore) {
    this.store = store;
  }

  directory(): seam.Directory {
    return DIRECTORY;
  }

  list(name: string): seam.TaskStore {
    return name === DEFAULT_LIST ? this.store : NO_LIST;
  }

  create(_title: string, _limits: DirectoryLimits, _key?: seam.IdempotencyKey): Promise<seam.ListWriteResult> {
    return UNSUPPORTED;
  }

  put(_name: string, _title: string, _conditions: PutConditions, _limits: DirectoryLimits) {
    return UNSUPPORTED;
  }

  async patch(name: string, _title: string | undefined, _ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    return name === DEFAULT_LIST ? UNSUPPORTED : { outcome: "not-found" };
  }

  async remove(name: string, _ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    return { outcome: name === DEFAULT_LIST ? "default-kept" : "not-found" };
  }
}

/** The store of every name but `default`: never created. */
const NO_LIST: seam.TaskStore = missingStore("not-found");
