helper:
  test.nop:
    - watch_in:
      - file: app
    - onchanges_in:
      - test: app
