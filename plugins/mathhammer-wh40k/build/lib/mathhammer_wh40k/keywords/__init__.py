"""The 40k weapon keywords this distribution ships, one plugin module each.

Each module registers its keyword through ``mathhammer_register_keywords`` and
has its own entry point, so a user can block or replace any one of them
(``MATHHAMMER_DISABLED_PLUGINS=lance``). Blast, Sustained Hits and Devastating
Wounds are distributions of their own (``plugins/mathhammer-blast`` ...).
"""
