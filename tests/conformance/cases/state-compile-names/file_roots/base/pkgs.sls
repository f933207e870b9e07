before:
  test.nop
packages:
  test.succeed_without_changes:
    - comment: default
    - names:
      - vim
      - git
      - vim
      - curl:
        - comment: custom
        - order: 5
      - wget:
        - name: renamed
      - 42
      - htop: []
after:
  test.nop:
    - names:
      - a1
      - a2
    - order: last
two_lists:
  test.nop:
    - names:
      - x1
    - names:
      - x2
      - x1
negative:
  test.nop:
    - order: -3
    - names:
      - neg1
      - neg2
with_name:
  test.nop:
    - name: ignored
    - names:
      - wn1
bad_name:
  test.nop:
    - name: [not, a, string]
    - state: file
