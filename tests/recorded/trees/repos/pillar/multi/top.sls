{{ saltenv }}:
  '*':
    - multi
