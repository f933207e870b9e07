lib_a:
  test.nop
lib_b:
  test.nop:
    - name: lib-b-name
