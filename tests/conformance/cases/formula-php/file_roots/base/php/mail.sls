{% set state = 'mail' %}
{% include "php/installed.jinja" %}
