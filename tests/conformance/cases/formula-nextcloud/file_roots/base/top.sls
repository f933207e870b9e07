base:
  '*':
    - nextcloud
