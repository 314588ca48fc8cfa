from warehouse.cli import entry

entry()
