// The plain Hono peer on Deno.
import { serveOnDeno } from "../deno.ts";
import app from "./app.ts";

serveOnDeno(app.fetch);
