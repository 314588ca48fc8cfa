"""The ledger: what people claim and decide, as data. Vendor claims and capacity decision records
(TOML files the user keeps, `claims`) and the user's own accelerator prices (`prices`), validated and
loaded next to the results so the views can audit one against the other."""
