include: conflict_a
extend: [a, b]
exclude: {sls: x}
no_dot_string: justaword
a_list: [x, y]
a_number: 42
two_tests:
  test.nop: []
  test.fail_without_changes: []
nested_ok:
  test.nop:
    - name: fine
