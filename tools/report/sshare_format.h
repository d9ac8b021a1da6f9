// The summary table in sshare's own formats: `sshare -l` (fixed width, indented tree) and
// `sshare -l -P` (parsable), with fairway's extra columns after sshare's, and a JSON form.
// Number formatting follows Slurm 22.05's print_fields.c so the first eight parsable columns can be
// compared with sshare character for character.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fairshare/fair_share.h"
#include "tools/report/report_model.h"

namespace fairway::report {

struct SummaryRow {
    std::string account;  // for a user row: the user's account
    std::string user;     // empty for an account row
    std::string parent;   // the parent account of an account row; empty for users and the root
    int depth = 0;        // root 0; its accounts and users 1; ...
    fairshare::ShareFigures figures;
    WindowTotals totals;  // undecayed, within the window; the subtree's for accounts
};

// Rows in sshare's order (depth first; users before sub-accounts, each sorted by name).
std::vector<SummaryRow> summary_rows(const ReportModel& model, const fairshare::FairShareResult& result);

// What sshare shows in the Account column: the account name indented one space per level; a user
// row shows its account's name one level deeper than the account itself.
std::string indented_account(const SummaryRow& row);

struct TableStyle {
    bool parsable = false;  // like sshare -P: '|' between fields, none at the end
    bool header = true;
};

void print_summary_table(std::ostream& out, const std::vector<SummaryRow>& rows, const TableStyle& style);

// Slurm's print_fields_double in fixed-width mode (right-aligned, "%*f", falling back to an
// exponent form that fits the width).
std::string sshare_fixed_double(double value, int width);

nlohmann::json summary_json(const ReportSettings& settings, const std::vector<SummaryRow>& rows);

// LevelFS/FairShare values in JSON: numbers, "inf" for infinity, null when sshare prints nothing.
nlohmann::json json_number(std::optional<long double> value);

}  // namespace fairway::report
