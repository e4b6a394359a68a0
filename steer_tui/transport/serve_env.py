"""The environment variables a `steer serve` child reads its upstream's URL and key from: shared by
the client that starts one (transport.backends) and the command itself (commands.serve)."""

UPSTREAM_KEY_ENV = "STEER_UPSTREAM_API_KEY"
# The upstream URL may carry credentials (user:pw@, ?key=): read from here, they stay out of the
# process list, where every local user can read a command line.
UPSTREAM_URL_ENV = "STEER_UPSTREAM_URL"
