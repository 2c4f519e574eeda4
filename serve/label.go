package serve

import (
	"errors"
	"io/fs"
	"net/http"
	"strconv"
	"syscall"

	"github.com/gtformer/gtformer/explore"
)

// labelRequest is PUT /v1/topics/{id}/label's body.
type labelRequest struct {
	Label *string `json:"label"`
}

// labelHandler renames a topic (PUT /v1/topics/{id}/label): the label is
// checked (edits.CheckLabel), written into the model folder's edit log
// through Options.SaveEdits, and the answer is the renamed topic, as GET
// /v1/topics/{id} gives it.
type labelHandler struct {
	ix  *explore.Index
	opt Options
}

func (h labelHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.opt.Token == "" {
		writeError(w, errorf(http.StatusForbidden, "renaming topics needs a server started with a token (gtformer serve --token-file FILE): "+
			"without one, anyone who reaches the server could change the model folder"))
		return
	}
	if h.opt.SaveEdits == nil {
		writeError(w, errorf(http.StatusForbidden, "this server takes no edits: its model folder is not writable (gtformer serve said so when it started)"))
		return
	}
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		writeError(w, errorf(http.StatusBadRequest, "topic id %q is not an integer", r.PathValue("id")))
		return
	}
	var req labelRequest
	if err := decodeJSON(w, r, h.opt.MaxBody, &req); err != nil {
		writeError(w, err)
		return
	}
	if req.Label == nil {
		writeError(w, errorf(http.StatusBadRequest, `"label" is missing: send {"label": "a name"}`))
		return
	}
	t, err := h.ix.Rename(id, *req.Label, 20, h.opt.SaveEdits)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, t)
	case errors.Is(err, explore.ErrNotFound):
		writeError(w, errorf(http.StatusNotFound, "%v", err))
	case errors.Is(err, explore.ErrBadLabel):
		writeError(w, errorf(http.StatusBadRequest, "%v", err))
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		writeError(w, errorf(http.StatusForbidden, "the model folder is not writable, so the label cannot be saved: %v", err))
	default:
		writeError(w, errorf(http.StatusInternalServerError, "saving the label: %v", err))
	}
}
