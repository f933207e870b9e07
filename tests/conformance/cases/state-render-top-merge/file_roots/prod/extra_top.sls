prod:
  'webserver-*':
    - extra
