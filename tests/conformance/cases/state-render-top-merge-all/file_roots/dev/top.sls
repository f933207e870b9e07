base:
  '*':
    - extra
    - shared
  'web*':
    - match: compound
    - extra
dev:
  '*':
    - more
