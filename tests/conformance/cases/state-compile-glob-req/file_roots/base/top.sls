base:
  '*':
    - globreq
