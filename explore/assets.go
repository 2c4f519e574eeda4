package explore

import (
	"embed"
	"io/fs"
)

//go:embed assets/index.html assets/app.js assets/rename.js assets/facets.js assets/linkmap.js assets/exports.js assets/style.css
var assets embed.FS

// Assets returns the explorer page's files: index.html, app.js (with its
// views in files of their own: rename.js, the rename control for a server
// that takes edits; facets.js; linkmap.js; exports.js), style.css.
func Assets() fs.FS {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic("explore: embedded assets: " + err.Error()) // the embed directive guarantees the folder
	}
	return sub
}
