dev:
  '*':
    - ignored_because_base_defines_dev
qa:
  'webserver*':
    - web
base:
  '*':
    - never
prod:
  '*':
    - web
