// Each test file of the Worker's projects starts on empty storage and fresh objects: the files of one
// worker share a workerd, so a file must not find the lists another left behind.
import { reset } from "cloudflare:test";
import { beforeAll } from "vitest";

beforeAll(() => reset());
