-- A plain GET of the list.
done = require("bench").done
