base:
  '*':
    - timezone
