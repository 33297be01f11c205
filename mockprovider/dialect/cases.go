package dialect

import "github.com/toolwire/toolwire/mockprovider/rules"

// RuleCase is a rule's break/fix request pair (rules.Case).
type RuleCase = rules.Case
