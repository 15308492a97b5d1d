// The Worker's bindings and vars; every var is optional and validated at start by src/config.ts.
declare namespace Cloudflare {
  interface Env {
    readonly BASE_PATH?: string;
    readonly MAX_BODY_BYTES?: string;
    readonly MAX_TASKS?: string;
    readonly CORS_ORIGINS?: string;
  }
}
