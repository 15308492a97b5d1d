-- A plain GET of the list.
done = require("report").done
