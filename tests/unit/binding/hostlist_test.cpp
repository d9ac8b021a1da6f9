#include "binding/hostlist.h"
#include "common/error.h"

#include <gtest/gtest.h>

using fairway::InputError;
using fairway::binding::expand_hostlist;
using fairway::binding::first_host;
using Hosts = std::vector<std::string>;

TEST(Hostlist, ExpandsSlurmExpressions) {
    struct Case {
        const char* expression;
        Hosts hosts;
    };
    for (const auto& [expression, hosts] : {
             Case{"node1", {"node1"}},
             Case{"node[1-3,5]", {"node1", "node2", "node3", "node5"}},
             Case{"n[08-11]", {"n08", "n09", "n10", "n11"}},
             Case{"a1,b[2-3],c", {"a1", "b2", "b3", "c"}},
             Case{"r[1-2]-n[1-2]", {"r1-n1", "r1-n2", "r2-n1", "r2-n2"}},
             Case{"gpu[7]", {"gpu7"}},
             Case{"host-a,host-b", {"host-a", "host-b"}},
             Case{"", {}},
             Case{"x[1-2]y", {"x1y", "x2y"}},
         })
        EXPECT_EQ(expand_hostlist(expression), hosts) << expression;
}

TEST(Hostlist, RejectsMalformedExpressions) {
    for (const char* bad : {"node[1-3", "node1-3]", "node[[1]]", "node[3-1]", "node[a-b]", "node[]", "node[1-2-3]",
                            "node[-1]", "node[1,]"}) {
        try {
            expand_hostlist(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const InputError& error) {
            EXPECT_EQ(error.where().key, "hostlist");
            EXPECT_NE(std::string(error.what()).find(bad), std::string::npos) << error.what();
        }
    }
}

TEST(Hostlist, RefusesToExpandBeyondTheLimit) {
    EXPECT_THROW(expand_hostlist("n[1-100000]", 1000), InputError);
    EXPECT_THROW(expand_hostlist("a[1-100]b[1-100]", 1000), InputError);
    EXPECT_THROW(expand_hostlist("a[1-10],b[1-10]", 15), InputError);
    EXPECT_EQ(expand_hostlist("n[1-1000]", 1000).size(), 1000u);
}

TEST(Hostlist, FirstHostWithoutExpandingTheRest) {
    struct Case {
        const char* expression;
        const char* first;
    };
    for (auto [expression, first] :
         {Case{"node[1-3,5]", "node1"}, Case{"node[5,1-3]", "node5"}, Case{"n[0001-9999999]", "n0001"},
          Case{"login,node[1-2]", "login"}, Case{"r[2-3]-n[07-08]", "r2-n07"}, Case{"node2", "node2"}})
        EXPECT_EQ(first_host(expression), first) << expression;
    EXPECT_THROW(first_host(""), InputError);
    EXPECT_THROW(first_host("node[1-"), InputError);
}
