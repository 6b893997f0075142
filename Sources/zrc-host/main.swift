print("zrc-host: under construction")
