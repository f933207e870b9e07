include:
  - extra_top
prod:
  'G@role:web':
    - web
