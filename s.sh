echo src:$s; s=changed
