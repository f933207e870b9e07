target:
  test.nop
src:
  test.nop:
    - require_in:
      - test.nop: target
src_dict:
  test.nop:
    - watch_in:
        test.nop: target
