base:
  '*':
    - common
    - main_only
