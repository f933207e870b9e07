include:
  - redis.common
  - redis.server
