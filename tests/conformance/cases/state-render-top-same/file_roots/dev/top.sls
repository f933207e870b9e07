dev:
  'web*':
    - web
qa:
  '*':
    - qa_from_dev_default_top
  'web1':
    - match: list
    - web
base:
  '*':
    - ignored
