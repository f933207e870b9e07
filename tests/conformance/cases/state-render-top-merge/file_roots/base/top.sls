base:
  '*':
    - common
  'os:Ubuntu':
    - match: grain
    - ubuntu
dev:
  'webserver*':
    - web
  'db*': [db]
