
include:
  - postgres.server.remove
  - postgres.client.remove
  - postgres.dev.remove
