// Golden tests: Slurm 22.05's own fair-share expectations (testsuite/expect/test24.1 for classic,
// test24.4 for Fair Tree) reproduced line by line in sshare's parsable format.
#include "fairshare/fair_share.h"

#include <gtest/gtest.h>

#include <optional>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "common/error.h"

namespace fairway::fairshare {
namespace {

struct Row {
    AssocId id, parent;
    const char* account;
    const char* user;  // "" for accounts
    long shares;       // -1 = Fairshare=parent
    double usage;
};

AssociationTree tree_of(const std::vector<Row>& rows) {
    std::vector<AssociationNode> nodes;
    for (const Row& r : rows)
        nodes.push_back(AssociationNode{r.id, r.parent, r.account, r.user,
                                        r.shares < 0 ? Shares::parent() : Shares::of(std::uint32_t(r.shares)),
                                        r.usage});
    return AssociationTree(nodes);
}

std::string number(std::optional<double> value) {
    if (!value) return "";
    char text[64];
    std::snprintf(text, sizeof text, "%f", *value);
    return text;
}

// sshare -l -P columns Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|
std::string sshare_line(const AssociationNode& node, const ShareFigures& f) {
    std::string raw_shares;
    if (f.raw_shares) raw_shares = f.raw_shares->use_parent ? "parent" : std::to_string(f.raw_shares->raw);
    std::optional<double> level;
    if (f.level_fs) level = static_cast<double>(*f.level_fs);
    char usage[32];
    std::snprintf(usage, sizeof usage, "%" PRIu64, static_cast<std::uint64_t>(f.raw_usage));
    return node.account + "|" + node.user + "|" + raw_shares + "|" + number(f.norm_shares) + "|" + usage + "|" +
           number(f.norm_usage) + "|" + number(f.effective_usage) + "|" + number(f.fair_share) + "|" + number(level) +
           "|";
}

std::vector<std::string> sshare_lines(const AssociationTree& tree, const FairShareOptions& options) {
    const FairShareResult result = compute_fair_share(tree, options);
    std::vector<std::string> lines;
    for (std::size_t i : tree.sshare_order()) lines.push_back(sshare_line(tree.node(i), result.figures()[i]));
    return lines;
}

bool has_line_starting(const std::vector<std::string>& lines, const std::string& expected) {
    for (const auto& line : lines)
        if (line.rfind(expected, 0) == 0) return true;
    return false;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return text;
}

// testsuite/expect/test24.1.prog.c: usage only on users, classic algorithm, damping 1.
const std::vector<Row> kTest24_1 = {
    {1, 0, "root", "", 1, 0},
    {2, 1, "AccountA", "", 40, 0},
    {21, 2, "AccountB", "", 30, 0},
    {211, 21, "AccountB", "User1", 1, 20},
    {22, 2, "AccountC", "", 10, 0},
    {221, 22, "AccountC", "User2", 1, 25},
    {222, 22, "AccountC", "User3", 1, 0},
    {3, 1, "AccountD", "", 60, 0},
    {31, 3, "AccountE", "", 25, 0},
    {311, 31, "AccountE", "User4", 1, 25},
    {32, 3, "AccountF", "", 35, 0},
    {321, 32, "AccountF", "User5", 1, 0},
    {4, 1, "AccountG", "", 0, 0},
    {41, 4, "AccountG", "User6", 0, 30},
};

TEST(FairShareClassic, ReproducesSlurmTest24_1) {
    const auto lines = sshare_lines(tree_of(kTest24_1), {FairShareAlgorithm::classic, 1});
    // The expected lines of test24.1, as sshare prints them (matched as prefixes, like expect does).
    for (const char* expected : {
             "AccountA||40|0.400000|45|0.450000|0.450000|0.458502|",
             "AccountB||30|0.300000|20|0.200000|0.387500|0.408479|",
             "AccountB|User1|1|0.300000|20|0.200000|0.387500|0.408479|",
             "AccountC||10|0.100000|25|0.250000|0.300000|0.125000|",
             "AccountC|User2|1|0.050000|25|0.250000|0.275000|0.022097|",
             "AccountC|User3|1|0.050000|0|0.000000|0.150000|0.125000|",
             "AccountD||60|0.600000|25|0.250000|0.250000|0.749154|",
             "AccountE||25|0.250000|25|0.250000|0.250000|0.500000|",
             "AccountE|User4|1|0.250000|25|0.250000|0.250000|0.500000|",
             "AccountF||35|0.350000|0|0.000000|0.145833|0.749154|",
             "AccountF|User5|1|0.350000|0|0.000000|0.145833|0.749154|",
             "AccountG||0|0.000000|30|0.300000|0.300000|0.000000|",
             "AccountG|User6|0|",
         })
        EXPECT_TRUE(has_line_starting(lines, expected)) << "missing " << expected << "\n got:\n" << joined(lines);
}

// testsuite/expect/test24.4.prog.c (Fair Tree). Account rows' usage in that program is overwritten
// by the sum of their users, so accounts carry none here. Its duplicate id 921 is 922 here.
const std::vector<Row> kTest24_4 = {
    {1, 0, "root", "", 1, 0},         {2, 1, "aA", "", 40, 0},          {21, 2, "aAA", "", 30, 0},
    {211, 21, "aAA", "uAA1", 1, 20},  {22, 2, "aAB", "", 10, 0},        {221, 22, "aAB", "uAB1", 1, 25},
    {222, 22, "aAB", "uAB2", 1, 0},   {3, 1, "aB", "", 60, 0},          {31, 3, "aBA", "", 25, 0},
    {311, 31, "aBA", "uBA1", 1, 25},  {32, 3, "aBB", "", 35, 0},        {321, 32, "aBB", "uBB1", 1, 0},
    {4, 1, "aC", "", 0, 0},           {41, 4, "aC", "uC1", 0, 30},      {5, 1, "aD", "", 50, 0},
    {51, 5, "aDA", "", -1, 0},        {511, 51, "aDA", "uDA1", -1, 10}, {512, 51, "aDA", "uDA2", 30, 10},
    {513, 51, "aDA", "uDA3", 50, 25}, {52, 5, "aD", "uD1", -1, 20},     {53, 5, "aD", "uD2", 40, 20},
    {54, 5, "aD", "uD3", 50, 25},     {6, 1, "aE", "", 10, 0},          {61, 6, "aE", "aE1", 10, 0},
    {62, 6, "aE", "aE2", 10, 0},      {7, 1, "root", "u1", 10, 0},      {8, 1, "aF", "", 20, 0},
    {81, 8, "aF", "uF1", 10, 0},      {82, 8, "aF", "uF2", 20, 0},      {9, 1, "aG", "", 8, 0},
    {91, 9, "aG", "uG1", 10, 10},     {92, 9, "aGA", "", 10, 0},        {921, 92, "aGA", "uGA1", 20, 4},
    {922, 92, "aGA", "uGA2", 20, 6},  {1001, 1, "root", "u2", 10, 10},
};

// test24.4's 35 expected lines up to LevelFS.
const std::vector<std::string> kTest24_4Expected = {
    "root|||0.000000|240||1.000000|||",
    "root|u1|10|0.048077|0|0.000000|0.000000|1.000000|inf|",
    "root|u2|10|0.048077|10|0.041667|0.041667|0.666667|1.153846|",
    "aA||40|0.192308|45|0.187500|0.187500||1.025641|",
    "aAA||30|0.750000|20|0.083333|0.444444||1.687500|",
    "aAA|uAA1|1|1.000000|20|0.083333|1.000000|0.619048|1.000000|",
    "aAB||10|0.250000|25|0.104167|0.555556||0.450000|",
    "aAB|uAB1|1|0.500000|25|0.104167|1.000000|0.523810|0.500000|",
    "aAB|uAB2|1|0.500000|0|0.000000|0.000000|0.571429|inf|",
    "aB||60|0.288462|25|0.104167|0.104167||2.769231|",
    "aBA||25|0.416667|25|0.104167|1.000000||0.416667|",
    "aBA|uBA1|1|1.000000|25|0.104167|1.000000|0.714286|1.000000|",
    "aBB||35|0.583333|0|0.000000|0.000000||inf|",
    "aBB|uBB1|1|1.000000|0|0.000000|0.000000|0.761905|inf|",
    "aC||0|0.000000|30|0.125000|0.125000||0.000000|",
    "aC|uC1|0|0.000000|30|0.125000|1.000000|0.047619|0.000000|",
    "aD||50|0.240385|110|0.458333|0.458333||0.524476|",
    "aD|uD1|parent|0.240385|20|0.083333|0.181818|0.476190||",
    "aD|uD2|40|0.235294|20|0.083333|0.181818|0.238095|1.294118|",
    "aD|uD3|50|0.294118|25|0.104167|0.227273|0.333333|1.294118|",
    "aDA||parent|0.240385|45|0.187500|0.409091|||",
    "aDA|uDA1|parent|0.240385|10|0.041667|0.090909|0.476190||",
    "aDA|uDA2|30|0.176471|10|0.041667|0.090909|0.380952|1.941176|",
    "aDA|uDA3|50|0.294118|25|0.104167|0.227273|0.333333|1.294118|",
    "aE||10|0.048077|0|0.000000|0.000000||inf|",
    "aE|aE1|10|0.500000|0|0.000000|0.000000|1.000000|inf|",
    "aE|aE2|10|0.500000|0|0.000000|0.000000|1.000000|inf|",
    "aF||20|0.096154|0|0.000000|0.000000||inf|",
    "aF|uF1|10|0.333333|0|0.000000|0.000000|1.000000|inf|",
    "aF|uF2|20|0.666667|0|0.000000|0.000000|1.000000|inf|",
    "aG||8|0.038462|20|0.083333|0.083333||0.461538|",
    "aG|uG1|10|0.500000|10|0.041667|0.500000|0.190476|1.000000|",
    "aGA||10|0.500000|10|0.041667|0.500000||1.000000|",
    "aGA|uGA1|20|0.500000|4|0.016667|0.400000|0.190476|1.250000|",
    "aGA|uGA2|20|0.500000|6|0.025000|0.600000|0.095238|0.833333|",
};

TEST(FairShareFairTree, ReproducesSlurmTest24_4LineByLine) {
    const auto lines = sshare_lines(tree_of(kTest24_4), {FairShareAlgorithm::fair_tree, 1});
    EXPECT_EQ(joined(lines), joined(kTest24_4Expected));
}

TEST(FairShareFairTree, UsersWithEqualLookingLevelFsAreRankedByExactValue) {
    // uD2 and uD3 print the same LevelFS but differ in long double; Slurm ranks uD3 higher.
    const AssociationTree tree = tree_of(kTest24_4);
    const FairShareResult result = compute_fair_share(tree, {});
    EXPECT_LT(*result.find(53)->level_fs, *result.find(54)->level_fs);
    EXPECT_LT(result.job_factor(53), result.job_factor(54));
    EXPECT_EQ(result.job_factor(54), result.job_factor(513));  // identical arithmetic: tied
}

TEST(FairShareFairTree, JobFactorIsTheUsersRankShare) {
    const AssociationTree tree = tree_of(kTest24_4);
    const FairShareResult result = compute_fair_share(tree, {});
    EXPECT_DOUBLE_EQ(result.job_factor(7), 1.0);
    EXPECT_DOUBLE_EQ(result.job_factor(41), 1.0 / 21);
    EXPECT_DOUBLE_EQ(result.job_factor(52), 10.0 / 21);  // Fairshare=parent user: ranked highest in aD
    EXPECT_EQ(result.job_factor(5), 0.0);                // accounts carry no job factor
    EXPECT_EQ(result.job_factor(424242), 0.0);
    EXPECT_EQ(result.find(424242), nullptr);
}

TEST(FairShareClassic, JobFactorOfParentSharesUserUsesTheFairShareParent) {
    const AssociationTree tree = tree_of(kTest24_4);
    const FairShareResult result = compute_fair_share(tree, {FairShareAlgorithm::classic, 1});
    const ShareFigures& account = *result.find(5);
    EXPECT_DOUBLE_EQ(result.job_factor(52), classic_fs_factor(account.effective_usage, account.norm_shares, 1));
    EXPECT_DOUBLE_EQ(result.find(52)->norm_shares, account.norm_shares);
    EXPECT_DOUBLE_EQ(result.find(52)->effective_usage, account.effective_usage);
    EXPECT_FALSE(result.find(52)->level_fs.has_value());
}

TEST(FairShareClassic, DampeningSoftensTheFactor) {
    struct Case {
        long double usage, shares;
        std::uint16_t damp;
        double expected;
    };
    for (const Case& c : {Case{0.5L, 0.25L, 1, 0.25}, Case{0.5L, 0.25L, 2, 0.5}, Case{0.5L, 0.25L, 0, 0.25},
                          Case{0, 0.25L, 1, 1.0}, Case{0.3L, 0, 1, 0.0}, Case{0.3L, -1, 1, 0.0}})
        EXPECT_DOUBLE_EQ(classic_fs_factor(c.usage, c.shares, c.damp), c.expected) << c.usage << "/" << c.shares;
}

TEST(FairShare, NoUsageAnywhereGivesZeroNormUsage) {
    auto rows = kTest24_1;
    for (auto& row : rows) row.usage = 0;
    const AssociationTree tree = tree_of(rows);
    for (auto algorithm : {FairShareAlgorithm::classic, FairShareAlgorithm::fair_tree}) {
        const FairShareResult result = compute_fair_share(tree, {algorithm, 1});
        for (std::size_t i = 0; i < tree.size(); ++i) {
            if (i == tree.root_index()) continue;
            EXPECT_EQ(result.figures()[i].norm_usage, 0.0);
            EXPECT_EQ(result.figures()[i].raw_usage, 0.0L);
        }
    }
}

TEST(FairShare, RawUsageSumsTheSubtreeIncludingAccountsOwnUsage) {
    const AssociationTree tree =
        tree_of({{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 1, 5}, {3, 2, "a", "u", 1, 7}, {4, 1, "b", "", 1, 0}});
    const FairShareResult result = compute_fair_share(tree, {});
    EXPECT_EQ(result.find(1)->raw_usage, 12.0L);
    EXPECT_EQ(result.find(2)->raw_usage, 12.0L);
    EXPECT_EQ(result.find(4)->raw_usage, 0.0L);
    EXPECT_DOUBLE_EQ(*result.find(3)->norm_usage, 7.0 / 12);
}

TEST(AssociationTree, RejectsMalformedTrees) {
    struct Case {
        const char* name;
        std::vector<Row> rows;
        const char* key;
    };
    const std::vector<Case> cases = {
        {"no root", {{2, 1, "a", "", 1, 0}}, "root"},
        {"two roots", {{1, 0, "root", "", 1, 0}, {2, 0, "x", "", 1, 0}}, "association 2"},
        {"duplicate id", {{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 1, 0}, {2, 1, "b", "", 1, 0}}, "association 2"},
        {"id zero", {{1, 0, "root", "", 1, 0}, {0, 1, "a", "", 1, 0}}, "association 0"},
        {"unknown parent", {{1, 0, "root", "", 1, 0}, {2, 9, "a", "", 1, 0}}, "association 2"},
        {"user parent", {{1, 0, "root", "", 1, 0}, {2, 1, "a", "u", 1, 0}, {3, 2, "a", "v", 1, 0}}, "association 3"},
        {"cycle", {{1, 0, "root", "", 1, 0}, {2, 3, "a", "", 1, 0}, {3, 2, "b", "", 1, 0}}, "association 2"},
        {"negative usage", {{1, 0, "root", "", 1, 0}, {2, 1, "a", "u", 1, -1}}, "association 2"},
        {"NaN usage", {{1, 0, "root", "", 1, 0}, {2, 1, "a", "u", 1, std::nan("")}}, "association 2"},
        {"parent root", {{1, 0, "root", "", -1, 0}}, "association 1"},
    };
    for (const Case& c : cases) {
        try {
            tree_of(c.rows);
            ADD_FAILURE() << c.name << " accepted";
        } catch (const InputError& error) {
            EXPECT_EQ(error.where().key, c.key) << c.name << ": " << error.what();
        }
    }
}

TEST(AssociationTree, SshareOrderPutsUsersFirstThenAccountsByName) {
    const AssociationTree tree = tree_of({{1, 0, "root", "", 1, 0},
                                          {2, 1, "zeta", "", 1, 0},
                                          {3, 1, "alpha", "", 1, 0},
                                          {4, 1, "root", "zz", 1, 0},
                                          {5, 3, "alpha", "b", 1, 0},
                                          {6, 3, "alpha", "a", 1, 0}});
    std::vector<AssocId> ids;
    for (std::size_t i : tree.sshare_order()) ids.push_back(tree.node(i).id);
    EXPECT_EQ(ids, (std::vector<AssocId>{1, 4, 3, 6, 5, 2}));
}

// What the reader would be given for `rows`, read from strings it does not own: the names are
// overwritten once read, so a node that kept a view instead of a copy shows it.
std::optional<std::vector<AssociationNode>> read_against(const AssociationTree* known, const std::vector<Row>& rows) {
    HierarchyReader reader(known);
    for (const Row& r : rows) {
        std::string account = r.account, user = r.user;
        reader.add(NodeFacts{r.id, r.parent, account, user,
                             r.shares < 0 ? Shares::parent() : Shares::of(std::uint32_t(r.shares))});
        account.assign(account.size(), '#');
        user.assign(user.size(), '#');
    }
    return std::move(reader).changed_nodes();
}

// The nodes of `rows` as the reader returns them: own usage 0.
std::vector<AssociationNode> nodes_without_usage(std::vector<Row> rows) {
    for (Row& r : rows) r.usage = 0;
    return tree_of(rows).nodes();
}

bool same_nodes(const std::vector<AssociationNode>& a, const std::vector<AssociationNode>& b) {
    const auto same = [](const AssociationNode& x, const AssociationNode& y) {
        return x.id == y.id && x.parent == y.parent && x.account == y.account && x.user == y.user &&
               x.shares == y.shares && x.own_usage == y.own_usage;
    };
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), same);
}

// A pass reuses the last tree when the hierarchy is unchanged; any change of shape, shares or
// names must be seen, and usage alone is not a change.
TEST(HierarchyReader, UnchangedHierarchyIsNotCopiedWhateverItsUsage) {
    const AssociationTree known = tree_of({{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 5, 3}, {3, 2, "a", "u", 1, 4}});
    EXPECT_FALSE(read_against(&known, {{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 5, 7}, {3, 2, "a", "u", 1, 9}}));
}

TEST(HierarchyReader, EveryChangeGivesAllTheNodesReadWithoutUsage) {
    const AssociationTree known = tree_of({{1, 0, "root", "", 1, 2}, {2, 1, "a", "", 5, 3}, {3, 2, "a", "u", 1, 4}});
    const std::vector<std::vector<Row>> changes = {
        {{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 6, 0}, {3, 2, "a", "u", 1, 0}},     // shares
        {{1, 0, "root", "", 1, 0}, {2, 1, "a", "", -1, 0}, {3, 2, "a", "u", 1, 0}},    // Fairshare=parent
        {{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 5, 0}, {3, 2, "a", "v", 1, 0}},     // user name
        {{1, 0, "root", "", 1, 0}, {2, 1, "b", "", 5, 0}, {3, 2, "b", "u", 1, 0}},     // account name
        {{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 5, 0}, {3, 1, "root", "u", 1, 0}},  // parent
        {{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 5, 0}},                             // the last removed
        {{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 5, 0}, {3, 2, "a", "u", 1, 0}, {4, 2, "a", "w", 1, 0}},  // one added
        {{1, 0, "root", "", 1, 0}, {3, 2, "a", "u", 1, 0}, {2, 1, "a", "", 5, 0}},                          // order
    };
    for (std::size_t i = 0; i < changes.size(); ++i) {
        const auto nodes = read_against(&known, changes[i]);
        ASSERT_TRUE(nodes) << "change " << i;
        EXPECT_TRUE(same_nodes(*nodes, nodes_without_usage(changes[i]))) << "change " << i;
    }
}

TEST(HierarchyReader, WithoutAKnownTreeEveryNodeIsNew) {
    const std::vector<Row> rows = {{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 5, 0}};
    const auto nodes = read_against(nullptr, rows);
    ASSERT_TRUE(nodes);
    EXPECT_TRUE(same_nodes(*nodes, nodes_without_usage(rows)));
    const AssociationTree empty;
    for (const AssociationTree* known : {static_cast<const AssociationTree*>(nullptr), &empty}) {
        const auto none = read_against(known, {});
        ASSERT_TRUE(none);
        EXPECT_TRUE(none->empty());
    }
}

// Copies share the validated shape and the result shares the tree's index; both must keep
// answering after the tree they came from is gone.
TEST(AssociationTree, CopiesAndResultsOutliveTheOriginal) {
    std::optional<AssociationTree> copy;
    std::optional<FairShareResult> result;
    {
        const AssociationTree tree = tree_of({{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 1, 0}, {3, 2, "a", "u", 1, 4}});
        copy = tree;
        result = compute_fair_share(tree, FairShareOptions{});
    }
    EXPECT_EQ(copy->index_of(3), std::optional<std::size_t>(2));
    EXPECT_EQ(copy->children(1), (std::vector<std::size_t>{2}));
    ASSERT_NE(result->find(3), nullptr);
    EXPECT_EQ(result->find(3)->raw_usage, 4);
    EXPECT_EQ(result->find(99), nullptr);
}

}  // namespace
}  // namespace fairway::fairshare

namespace fairway::fairshare {
namespace {

// Random trees (accounts nested up to 4 deep, some Fairshare=parent, some zero shares/usage).
AssociationTree random_tree(std::mt19937& random) {
    std::vector<AssociationNode> nodes{{1, kNoParent, "root", "", Shares::of(1), 0}};
    std::vector<AssocId> accounts{1};
    AssocId next = 2;
    const int account_count = 1 + int(random() % 8);
    for (int a = 0; a < account_count; ++a) {
        const AssocId parent = accounts[random() % accounts.size()];
        const Shares shares = random() % 6 == 0 ? Shares::parent() : Shares::of(std::uint32_t(random() % 50));
        nodes.push_back({next, parent, "a" + std::to_string(next), "", shares, 0});
        accounts.push_back(next++);
    }
    const int user_count = 1 + int(random() % 20);
    for (int u = 0; u < user_count; ++u) {
        const AssocId parent = accounts[random() % accounts.size()];
        const Shares shares = random() % 8 == 0 ? Shares::parent() : Shares::of(std::uint32_t(random() % 10));
        nodes.push_back({next, parent, nodes[parent - 1].account, "u" + std::to_string(next), shares,
                         random() % 3 == 0 ? 0.0 : double(random() % 100000)});
        ++next;
    }
    return AssociationTree(nodes);
}

TEST(FairShareProperty, RandomTreesKeepTheInvariants) {
    std::mt19937 random(2205);
    for (int trial = 0; trial < 500; ++trial) {
        const AssociationTree tree = random_tree(random);
        const FairShareResult fair_tree = compute_fair_share(tree, {FairShareAlgorithm::fair_tree, 1});
        const FairShareResult classic = compute_fair_share(tree, {FairShareAlgorithm::classic, 1});
        double best_user = 0;
        for (std::size_t i = 0; i < tree.size(); ++i) {
            const AssociationNode& node = tree.node(i);
            const ShareFigures& ft = fair_tree.figures()[i];
            const ShareFigures& cl = classic.figures()[i];
            EXPECT_GE(ft.norm_shares, 0);
            EXPECT_LE(ft.norm_shares, 1);
            EXPECT_GE(cl.norm_shares, 0);
            EXPECT_LE(cl.norm_shares, 1);
            ASSERT_TRUE(cl.fair_share.has_value());
            EXPECT_GE(*cl.fair_share, 0);
            EXPECT_LE(*cl.fair_share, 1);
            EXPECT_EQ(ft.fair_share.has_value(), node.is_user());
            if (!node.is_user()) continue;
            EXPECT_GT(*ft.fair_share, 0);
            EXPECT_LE(*ft.fair_share, 1);
            best_user = std::max(best_user, *ft.fair_share);
            EXPECT_GE(classic.job_factor(node.id), 0);
        }
        EXPECT_EQ(best_user, 1.0) << "the best-ranked user always has 1.0";
    }
}

TEST(FairShareFairTree, TiedAccountsAreWalkedInTurnNotMerged) {
    // x and y tie at the root. Slurm 22.05 ranks x's users first, then carries the tie into y's
    // first user (same rank as x's last), instead of merging x's and y's users by LevelFS.
    const AssociationTree tree = tree_of({{1, 0, "root", "", 1, 0},
                                          {10, 1, "x", "", 1, 0},
                                          {11, 10, "x", "x1", 1, 30},
                                          {12, 10, "x", "x2", 1, 10},
                                          {20, 1, "y", "", 1, 0},
                                          {21, 20, "y", "y1", 1, 40}});
    const FairShareResult result = compute_fair_share(tree, {});
    EXPECT_EQ(*result.find(10)->level_fs, *result.find(20)->level_fs);
    EXPECT_DOUBLE_EQ(result.job_factor(12), 3.0 / 3);
    EXPECT_DOUBLE_EQ(result.job_factor(11), 2.0 / 3);  // merged (x2 2.0 > y1 1.0 > x1 0.67) would give 1/3
    EXPECT_DOUBLE_EQ(result.job_factor(21), 2.0 / 3);  // tied with x's last user
}

TEST(FairShare, TreeWithLedgerUsageEqualsTreeWithTheSameNumbers) {
    AssociationTree tree = tree_of(kTest24_4);
    WindowedUsageLedger ledger(LedgerConfig{kInfiniteWindow, Seconds{0}, Seconds{0}});
    for (const AssociationNode& node : tree.nodes())
        if (node.own_usage > 0) ledger.charge(node.id, node.own_usage, TimePoint{Seconds{1000}});
    const AssociationTree from_ledger = tree.with_usage(ledger, TimePoint{Seconds{5000}});
    const FairShareResult direct = compute_fair_share(tree, {});
    const FairShareResult via_ledger = compute_fair_share(from_ledger, {});
    for (std::size_t i = 0; i < tree.size(); ++i) {
        EXPECT_EQ(direct.figures()[i].raw_usage, via_ledger.figures()[i].raw_usage);
        EXPECT_EQ(direct.figures()[i].fair_share, via_ledger.figures()[i].fair_share);
    }
}

}  // namespace
}  // namespace fairway::fairshare

namespace fairway::fairshare {
namespace {

// A pass skips its walk over the jobs only when the factors it would put into them are the ones
// the last walk used: usage that changes no factor is no change, any changed factor is.
TEST(FairShareResult, SameJobFactorsComparesFactorsOfOneHierarchy) {
    const AssociationTree shape =
        tree_of({{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 1, 0}, {3, 2, "a", "u", 1, 0}, {4, 2, "a", "v", 1, 0}});
    const auto result_with = [&](double u_usage, double v_usage, FairShareOptions options) {
        WindowedUsageLedger ledger(LedgerConfig{kInfiniteWindow, Seconds{0}, Seconds{0}});
        ledger.charge(3, u_usage, TimePoint{Seconds{1000}});
        ledger.charge(4, v_usage, TimePoint{Seconds{1000}});
        return compute_fair_share(shape.with_usage(ledger, TimePoint{Seconds{2000}}), options);
    };
    const FairShareOptions classic{FairShareAlgorithm::classic, 1};
    // Fair Tree ranks users: u stays ahead of v whatever the amounts.
    EXPECT_TRUE(result_with(100, 300, {}).same_job_factors(result_with(200, 500, {})));
    EXPECT_FALSE(result_with(100, 300, {}).same_job_factors(result_with(300, 100, {})));
    // Classic factors follow the usage itself.
    EXPECT_TRUE(result_with(100, 300, classic).same_job_factors(result_with(100, 300, classic)));
    EXPECT_FALSE(result_with(100, 300, classic).same_job_factors(result_with(100, 301, classic)));
    EXPECT_FALSE(result_with(100, 300, classic).same_job_factors(result_with(100, 300, {})));
    // Equal numbers on another tree (even an equal-looking one) are not the same factors.
    const AssociationTree other =
        tree_of({{1, 0, "root", "", 1, 0}, {2, 1, "a", "", 1, 0}, {3, 2, "a", "u", 1, 0}, {4, 2, "a", "v", 1, 0}});
    EXPECT_FALSE(compute_fair_share(shape, {}).same_job_factors(compute_fair_share(other, {})));
    EXPECT_FALSE(FairShareResult().same_job_factors(compute_fair_share(shape, {})));
}

const FairShareOptions kDepthOblivious = fair_share_options(false, true, 1);

double fair_share_of(const FairShareResult& result, AssocId id) { return *result.find(id)->fair_share; }

// The worked example of Slurm's depth-oblivious page (priority_multifactor3): a parent account's
// children used twice their combined shares (R_parent = 2), and one child used two thirds of its
// own share, so its local ratio is 1/3 and R = 2 * (1/3)^k with k = 1 / (1 + (5 ln 2)^2).
TEST(FairShareDepthOblivious, PullsAChildBelowTargetTowardsItsOverusingParent) {
    const AssociationTree tree = tree_of({{1, 0, "root", "", 1, 0},
                                          {2, 1, "p", "", 1, 0},
                                          {21, 2, "p", "a", 1, 1},
                                          {22, 2, "p", "b", 1, 5},
                                          {3, 1, "q", "", 1, 0},
                                          {31, 3, "q", "c", 1, 0}});
    const FairShareResult result = compute_fair_share(tree, kDepthOblivious);
    const double k = 1 / (1 + std::pow(5 * std::log(2.0), 2));
    const double ratio_a = 2 * std::pow(1.0 / 3, k);
    EXPECT_NEAR(result.find(21)->effective_usage, ratio_a * 0.25, 1e-12);
    EXPECT_NEAR(fair_share_of(result, 21), std::pow(2.0, -ratio_a), 1e-12);
    EXPECT_NEAR(result.job_factor(21), std::pow(2.0, -ratio_a), 1e-12);
    // b overuses more than its parent (local ratio 5/3): k = 1, R is b's own ratio (5/6) / 0.25.
    EXPECT_NEAR(result.find(22)->effective_usage, 10.0 / 3 * 0.25, 1e-12);
    // Accounts under root and unused associations keep their normalized usage.
    EXPECT_NEAR(result.find(2)->effective_usage, 1.0, 1e-12);
    EXPECT_NEAR(fair_share_of(result, 2), 0.25, 1e-12);
    EXPECT_EQ(result.find(31)->effective_usage, 0.0);
    EXPECT_EQ(fair_share_of(result, 31), 1.0);
    // The classic algorithm would put a at (1/6 + (1 - 1/6) / 2) / 0.25 = 7/3: further from its own 2/3.
    const FairShareResult classic = compute_fair_share(tree, fair_share_options(false, false, 1));
    EXPECT_NEAR(classic.find(21)->effective_usage, 7.0 / 12, 1e-12);
}

// Under ancestors that are on target, a deep user's ratio is its own usage over its shares,
// whatever its depth: the point of DEPTH_OBLIVIOUS.
TEST(FairShareDepthOblivious, DepthDoesNotMoveAUserUnderAncestorsOnTarget) {
    const AssociationTree tree = tree_of({{1, 0, "root", "", 1, 0},
                                          {2, 1, "deep", "", 1, 0},
                                          {21, 2, "deeper", "", 1, 0},
                                          {211, 21, "deepest", "", 1, 0},
                                          {2111, 211, "deepest", "u", 1, 1},
                                          {2112, 211, "deepest", "v", 1, 4},
                                          {3, 1, "flat", "", 1, 0},
                                          {31, 3, "flat", "w", 1, 1},
                                          {32, 3, "flat", "x", 1, 4}});
    const FairShareResult result = compute_fair_share(tree, kDepthOblivious);
    EXPECT_NEAR(fair_share_of(result, 2111), fair_share_of(result, 31), 1e-12);
    EXPECT_NEAR(fair_share_of(result, 2112), fair_share_of(result, 32), 1e-12);
    EXPECT_NEAR(result.find(2111)->effective_usage / result.find(2111)->norm_shares, 0.1 / 0.25, 1e-12);
}

// The children of a Fairshare=parent account are its parent's fair-share children, so they count
// among the siblings whose usage r_local is measured against, as if the account were not there.
TEST(FairShareDepthOblivious, SiblingsTakeInTheChildrenOfParentAccounts) {
    const AssociationTree nested = tree_of({{1, 0, "root", "", 1, 0},
                                            {2, 1, "p", "", 1, 0},
                                            {3, 2, "x", "", -1, 0},
                                            {31, 3, "x", "a", 1, 4},
                                            {32, 3, "x", "b", 1, 2},
                                            {21, 2, "p", "c", 1, 1},
                                            {4, 1, "q", "", 1, 0},
                                            {41, 4, "q", "d", 1, 1}});
    const AssociationTree flat = tree_of({{1, 0, "root", "", 1, 0},
                                          {2, 1, "p", "", 1, 0},
                                          {31, 2, "p", "a", 1, 4},
                                          {32, 2, "p", "b", 1, 2},
                                          {21, 2, "p", "c", 1, 1},
                                          {4, 1, "q", "", 1, 0},
                                          {41, 4, "q", "d", 1, 1}});
    const FairShareResult with_parent_account = compute_fair_share(nested, kDepthOblivious);
    const FairShareResult without = compute_fair_share(flat, kDepthOblivious);
    for (AssocId id : {21u, 31u, 32u})
        EXPECT_NEAR(with_parent_account.find(id)->effective_usage, without.find(id)->effective_usage, 1e-15) << id;
}

TEST(FairShareOptions, FollowSlurmsFlags) {
    EXPECT_STREQ(algorithm_name(fair_share_options(true, false, 0)), "fair_tree");
    EXPECT_STREQ(algorithm_name(fair_share_options(false, false, 0)), "classic");
    EXPECT_STREQ(algorithm_name(fair_share_options(false, true, 0)), "depth_oblivious");
    // Slurm clears FAIR_TREE with DEPTH_OBLIVIOUS; a Fair Tree setting never has the classic variant.
    EXPECT_FALSE(fair_share_options(true, true, 3).depth_oblivious);
    EXPECT_EQ(fair_share_options(true, true, 0).dampening, 1);
    EXPECT_EQ(fair_share_options(false, true, 3).dampening, 3);
}

}  // namespace
}  // namespace fairway::fairshare
