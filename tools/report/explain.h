// explain and forecast: the per-association answers to "why does my job wait?" and "when will my
// priority recover?", computed on a ReportModel with the shared core.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fairshare/forecast.h"
#include "tools/report/report_model.h"

namespace fairway::report {

// Everything explain prints for one association, as data (text and JSON are both made from it).
struct AssociationExplanation {
    std::size_t index = 0;
    std::string account, user;
    std::vector<std::string> path;  // root .. own account
    fairshare::ShareFigures figures;
    double job_factor = 0;                 // the fair-share factor a job of this association gets
    std::size_t rank = 0, ranked = 0;      // among all user associations, 1 = highest factor
    std::size_t peer_rank = 0, peers = 0;  // among siblings, by LevelFS (Fair Tree) or factor (classic)
    double weighted_fairshare = 0;         // PriorityWeightFairshare x job_factor
    double kubernetes_usage = 0;           // the part of figures.raw_usage charged from Kubernetes
};

// Explains every association of `target`: a user name (all their associations) or an account.
// Throws InputError (key "target") when nothing matches.
std::vector<AssociationExplanation> explain_target(const ReportModel& model, const std::string& target);

void print_explanations(std::ostream& out, const ReportModel& model,
                        const std::vector<AssociationExplanation>& explanations);
nlohmann::json explanations_json(const std::vector<AssociationExplanation>& explanations);

struct ForecastLine {
    std::size_t index = 0;
    std::string account, user;
    double target_level = 0;
    fairshare::RecoveryForecast forecast;
};

// Forecasts recovery to `level` for a user's associations, or an account (classic) or the users
// directly in it (Fair Tree, where accounts have no factor of their own).
std::vector<ForecastLine> forecast_target(const ReportModel& model, const std::string& target, double level);
void print_forecasts(std::ostream& out, const ReportModel& model, const std::vector<ForecastLine>& lines);
nlohmann::json forecasts_json(const ReportModel& model, const std::vector<ForecastLine>& lines);

}  // namespace fairway::report
