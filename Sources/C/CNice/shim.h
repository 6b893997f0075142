#include <nice/agent.h>
#include <nice/pseudotcp.h>
