{%- set tricky = {
  '': '',
  'emoji': 'emoji 😀',
  'nel': '\x85nel',
  'e_acute': '\u00e9t\u00e9',
  'bell': 'long ' ~ ('x' * 30) ~ ' ' ~ ('y' * 60) ~ ' \x07 ' ~ ('z' * 20),
  'spaces': 'word ' * 30,
  'multi': 'one\ntwo\n\nthree',
  'flowlist': range(40) | list,
  'keys': {'b': 1, 'a': {'z': [], 'y': {}}},
} %}
block: {{ tricky | yaml(False) | json }}
flow: {{ tricky | yaml | json }}
{%- for k in tricky | sort %}
enc_{{ loop.index }}: {{ tricky[k] | yaml_encode | json if tricky[k] is string else '' | json }}
dq_{{ loop.index }}: {{ tricky[k] | yaml_dquote | json }}
{%- if k != 'nel' %}{# NEL in a single-quoted scalar: see the note in case.yaml #}
sq_{{ loop.index }}: {{ tricky[k] | yaml_squote | json }}
{%- endif %}
{%- endfor %}
