-- The peer for 'make bench-sdiag': a trivial job_submit/lua script that sets
-- the comment from the job name, as sites commonly do.
function slurm_job_submit(job_desc, part_list, submit_uid)
    job_desc.comment = "lua:" .. (job_desc.name or "")
    return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    return slurm.SUCCESS
end
