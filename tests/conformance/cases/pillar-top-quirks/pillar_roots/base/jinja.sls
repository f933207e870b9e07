{% set l = [] %}
{% do l.append(1) %}
{% for i in range(4) %}{% if i == 1 %}{% continue %}{% endif %}{% if i == 3 %}{% break %}{% endif %}{% do l.append(i) %}{% endfor %}
jinja:
  list: {{ l }}
  items: {{ {'a': 1}.items() | list }}
  roles: {{ grains.get('roles', []) | join(',') }}
  cfg: {{ salt['config.get']('os') }}
  upper: {{ 'x'.upper() }}
  default: {{ pillar.get('nothing', 'dflt') }}
