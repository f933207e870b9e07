base:
  '*':
    - supervisor
