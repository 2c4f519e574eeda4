package serve

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/gtformer/gtformer/explore"
	"github.com/gtformer/gtformer/topicmap"
)

// mapError maps the facets' and link map's errors: unknown topic or field
// 404, a request that does not fit the data 400.
func mapError(err error) error {
	switch {
	case errors.Is(err, explore.ErrNotFound), errors.Is(err, topicmap.ErrUnknown):
		return errorf(http.StatusNotFound, "%v", err)
	case errors.Is(err, topicmap.ErrBadRequest):
		return errorf(http.StatusBadRequest, "%v", err)
	}
	return err
}

// facetsHandler answers GET /v1/topics/{id}/facets/{field}?bin=&top=&quantiles=.
type facetsHandler struct{ ix *explore.Index }

func (h facetsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		writeError(w, errorf(http.StatusBadRequest, "topic id %q is not an integer", r.PathValue("id")))
		return
	}
	opt := topicmap.FacetOptions{Bin: r.URL.Query().Get("bin")}
	switch opt.Bin {
	case topicmap.BinAuto, topicmap.BinYear, topicmap.BinMonth, topicmap.BinQuantile, topicmap.BinValue:
	default:
		writeError(w, errorf(http.StatusBadRequest, "parameter bin=%q: want year, month, quantile or value", opt.Bin))
		return
	}
	if opt.Top, err = intParam(r, "top", topicmap.DefaultTop, 1, 1000); err != nil {
		writeError(w, err)
		return
	}
	if opt.Quantiles, err = intParam(r, "quantiles", topicmap.DefaultQuantiles, 1, 100); err != nil {
		writeError(w, err)
		return
	}
	f, err := h.ix.Facets(id, r.PathValue("field"), opt)
	if err != nil {
		writeError(w, mapError(err))
		return
	}
	writeJSON(w, http.StatusOK, f)
}

// linksHandler answers GET /v1/topics/links?level=&top=.
type linksHandler struct{ ix *explore.Index }

func (h linksHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info := h.ix.Info()
	if info.Levels < 2 {
		writeError(w, errorf(http.StatusBadRequest, "the tree has no level below the root"))
		return
	}
	level, err := intParam(r, "level", 1, 1, info.Levels-1)
	if err != nil {
		writeError(w, err)
		return
	}
	top, err := intParam(r, "top", 10, 0, info.Topics*info.Topics)
	if err != nil {
		writeError(w, err)
		return
	}
	lm, err := h.ix.LinkMap(level, top)
	if err != nil {
		writeError(w, mapError(err))
		return
	}
	writeJSON(w, http.StatusOK, lm)
}
