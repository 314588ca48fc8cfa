"""`python -m warehouse.identity`: validate the shipped reference tables and record their checksums in
warehouse/identity/reference/_validated.json (after editing one; a test fails while it is out of date)."""
from warehouse.identity.reference import write_validated_checksums

if __name__ == "__main__":
    print(f"wrote {write_validated_checksums()}")
