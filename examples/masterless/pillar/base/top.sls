base:
  '*':
    - common
  'web*':
    - webserver
  'G@role:db or db*':
    - match: compound
    - database
