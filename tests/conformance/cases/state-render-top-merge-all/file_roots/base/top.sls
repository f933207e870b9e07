base:
  '*':
    - common
    - shared
  'web*':
    - match: glob
    - web
dev:
  '*':
    - devstuff
