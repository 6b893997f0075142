print("zrc-ctl: under construction")
