base:
  '*':
    - web
qa:
  'web1':
    - match: list
    - qastuff
