package doctor

import "strconv"

// Finding severities: an error makes doctor exit 6, a warning does not.
const (
	SevError   = "error"
	SevWarning = "warning"
)

// Finding is one thing doctor found: where, what is wrong, how to mend it.
type Finding struct {
	Severity string `json:"severity"`
	Kind     string `json:"kind"` // a stable word: "drift", "duplicate-qid", …
	File     string `json:"file"` // relative to the feature directory, or .devrites/…
	Line     int    `json:"line,omitempty"`
	Problem  string `json:"problem"`
	Mend     string `json:"mend"`
	Fixable  bool   `json:"fixable"` // doctor --fix repairs it
}

// Where is "file:line", or "file" when there is no line.
func (f Finding) Where() string {
	if f.Line > 0 {
		return f.File + ":" + strconv.Itoa(f.Line)
	}
	return f.File
}

// Repair is one change doctor --fix made.
type Repair struct {
	Kind string `json:"kind"`
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Did  string `json:"did"`
}

// Where is "file:line", or "file" when there is no line.
func (r Repair) Where() string {
	return Finding{File: r.File, Line: r.Line}.Where()
}

// Report is what doctor prints. With fix, Findings are what remains
// after the repairs.
type Report struct {
	Workspace string    `json:"workspace"`
	OK        bool      `json:"ok"` // no errors
	Errors    int       `json:"errors"`
	Warnings  int       `json:"warnings"`
	Findings  []Finding `json:"findings"`
	Repairs   []Repair  `json:"repairs"`
}

// Fixable reports whether doctor --fix would repair any of the findings.
func (r *Report) Fixable() bool {
	for _, f := range r.Findings {
		if f.Fixable {
			return true
		}
	}
	return false
}

// Add appends findings to the report and counts them.
func (r *Report) Add(findings ...Finding) {
	r.Findings = append(r.Findings, findings...)
	r.count(findings)
}

// count adds findings to the report's counts.
func (r *Report) count(findings []Finding) {
	for _, f := range findings {
		if f.Severity == SevError {
			r.Errors++
			r.OK = false
		} else {
			r.Warnings++
		}
	}
}

// NewReport is the report of what doctor found and repaired in workspace.
// It takes findings: thousands are not copied.
func NewReport(workspace string, findings []Finding, repairs []Repair) *Report {
	r := &Report{Workspace: workspace, OK: true, Findings: findings, Repairs: repairs}
	if r.Repairs == nil {
		r.Repairs = []Repair{}
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	r.count(r.Findings)
	return r
}
