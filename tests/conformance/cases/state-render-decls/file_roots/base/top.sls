base:
  '*':
    - never_read
