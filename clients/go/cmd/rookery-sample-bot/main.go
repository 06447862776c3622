// Command rookery-sample-bot plays Rook on a Rookery server with the kit's sample strategy.
//
//	rookery-sample-bot -name NAME [-server HOST:PORT] [-max-tables N] [-sessions N]
package main

import (
	"rookery/kit/rookery"
	"rookery/kit/samplebot"
)

func main() {
	rookery.Main(func(*rookery.TableInfo) rookery.Bot { return samplebot.New() })
}
