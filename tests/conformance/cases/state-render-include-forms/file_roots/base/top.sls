base:
  '*':
    - app
    - web.*
    - {dev: tools}
