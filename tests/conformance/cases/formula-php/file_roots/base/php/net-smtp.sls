{% set state = 'net-smtp' %}
{% include "php/installed.jinja" %}
