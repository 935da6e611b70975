print("assetmaker")
