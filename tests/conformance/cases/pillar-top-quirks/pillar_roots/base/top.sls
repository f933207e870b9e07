base:
  # Salt iterates a string target value: c, o, m, n
  '*': common
  'web*':
    - jinja
  'G@roles:cache':
    - match: compound
    - dictform
