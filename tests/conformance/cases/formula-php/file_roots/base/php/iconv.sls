{% set state = 'iconv' %}
{% include "php/installed.jinja" %}
